from django.urls import path

from learn import views

app_name = "learn"

urlpatterns = [
    path("learn/", views.course, name="course"),
    path("learn/first-match/", views.first_match, name="first_match"),
    path("learn/<slug:slug>/", views.lesson_page, name="lesson"),
]
