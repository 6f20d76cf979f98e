from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("tournaments/", views.tournament_list, name="list"),
    path("tournaments/new/", views.tournament_create, name="create"),
    path("tournaments/schedules/new/", views.schedule_create, name="schedule_create"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="detail"),
    path("tournaments/<int:tournament_id>/edit/", views.tournament_edit, name="edit"),
    path("tournaments/<int:tournament_id>/register/", views.tournament_register, name="register"),
    path(
        "tournaments/<int:tournament_id>/unregister/",
        views.tournament_unregister,
        name="unregister",
    ),
    path("tournaments/<int:tournament_id>/my-table/", views.tournament_follow, name="follow"),
    path("tournaments/<int:tournament_id>/berserk/", views.arena_berserk, name="berserk"),
    path("tournaments/<int:tournament_id>/tv/", views.arena_tv, name="arena_tv"),
    path(
        "tournaments/<int:tournament_id>/tv/current/",
        views.arena_tv_current,
        name="arena_tv_current",
    ),
    path(
        "tournaments/<int:tournament_id>/arena/<str:action>/",
        views.arena_action,
        name="arena",
    ),
    path(
        "tournaments/<int:tournament_id>/staff/<str:action>/",
        views.tournament_staff_action,
        name="staff",
    ),
]
