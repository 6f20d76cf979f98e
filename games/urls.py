from django.urls import path

from games import views

app_name = "games"

urlpatterns = [
    path("tables/new/", views.table_create, name="table_create"),
    path("tables/<int:table_id>/", views.table_detail, name="table"),
    path(
        "tables/<int:table_id>/bot-account/",
        views.table_seat_bot_account,
        name="table_seat_bot_account",
    ),
    path("t/<str:token>/", views.table_invite, name="invite"),
    path("hands/<int:hand_id>/", views.hand_detail, name="hand"),
    path("hands/<int:hand_id>/analysis/", views.hand_analysis, name="hand_analysis"),
    path("hands/<int:hand_id>.json", views.hand_export, name="hand_export"),
    path("fairness/", views.fairness, name="fairness"),
    path("games/", views.my_games, name="my_games"),
    path("tv/", views.tv, name="tv"),
    path("tv/current/", views.tv_current, name="tv_current"),
    path("tv/<slug:speed>/", views.tv, name="tv_channel"),
    path("ratings/", views.leaderboard, name="leaderboard"),
]
